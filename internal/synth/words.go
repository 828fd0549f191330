package synth

// Word lists the generator builds names from. Every person, party, place and outlet it makes up is
// fictional; the lists only make the names look and search like real ones (several words, accents,
// apostrophes, hyphens, namesakes).

var firstNames = []string{
	"Amina", "Abdul", "Adam", "Aisha", "Alan", "Alice", "Amir", "Andrew", "Angela", "Anil", "Anna", "Asif",
	"Barbara", "Ben", "Bilal", "Bridget", "Carl", "Catherine", "Chloe", "Chris", "Claire", "Colin", "Daniel",
	"David", "Deborah", "Declan", "Dilwara", "Duncan", "Eleanor", "Elif", "Emma", "Farhana", "Fatima", "Fiona",
	"Gareth", "George", "Grace", "Hamza", "Hannah", "Harriet", "Hasan", "Helen", "Ian", "Imran", "Irene",
	"Jack", "James", "Jane", "Javed", "Jennifer", "John", "Joseph", "Joy", "Kamal", "Karen", "Kate", "Kevin",
	"Khadija", "Laura", "Leila", "Liam", "Lucy", "Mahmud", "Maria", "Mark", "Martin", "Mary", "Matthew",
	"Mehmet", "Michael", "Mohammed", "Nadia", "Naomi", "Neil", "Nicola", "Niamh", "Oliver", "Omar", "Owen",
	"Patrick", "Paul", "Peter", "Priya", "Rachel", "Rahim", "Rajesh", "Rebecca", "Rehana", "Richard", "Rita",
	"Robert", "Ruth", "Sabina", "Sadiq", "Salma", "Samir", "Sarah", "Sean", "Shamim", "Simon", "Siobhan",
	"Sophie", "Stephen", "Sunita", "Tahmina", "Thomas", "Tom", "Tony", "Uzma", "Victoria", "Wendy", "Yasmin",
	"Yusuf", "Zara", "Zoë", "Renée", "José", "Chloé", "Ingrid", "Kwame", "Ade", "Chidi", "Ngozi", "Tomasz",
	"Agnieszka", "Piotr", "Sinéad", "Ciarán", "Dafydd", "Rhiannon", "Ewan", "Morag", "Hamish", "Iqbal",
}

var surnames = []string{
	"Ahmed", "Ali", "Begum", "Brown", "Chowdhury", "Clarke", "Cohen", "Davies", "Evans", "Green", "Hall",
	"Hughes", "Hussain", "Islam", "Jackson", "Jones", "Khan", "King", "Lewis", "Martin", "Miah", "Moore",
	"Morris", "Murphy", "O'Brien", "O'Neill", "Patel", "Price", "Rahman", "Roberts", "Robinson", "Shah",
	"Singh", "Smith", "Taylor", "Thomas", "Thompson", "Turner", "Uddin", "Walker", "White", "Williams",
	"Wilson", "Wood", "Wright", "Young", "Kowalski", "Nowak", "Okafor", "Mensah", "Silva", "Costa", "Novák",
	"Müller", "Dubois", "Rossi", "Yilmaz", "Öztürk", "Nguyen", "Chen", "Kaur", "Sharma", "Mahmood", "Malik",
	"Haque", "Karim", "Sultana", "Alam", "Siddiqui", "MacLeod", "McDonald", "Fitzgerald", "Gallagher",
	"Llewellyn", "Pritchard", "Ashworth", "Whitfield", "Hartley", "Pemberton", "Fairweather", "Lockwood",
}

// Surnames are also made from two syllables, for many more distinct families than the list holds.
var surnameHeads = []string{
	"Ab", "Bel", "Car", "Dal", "Ed", "Fen", "Gar", "Hol", "Ing", "Jar", "Kel", "Lind", "Mor", "Nash", "Ol",
	"Pem", "Quin", "Ros", "Sal", "Tor", "Ul", "Van", "Wes", "Yor", "Zel", "Brad", "Crom", "Dun", "Elling",
	"Frob", "Gold", "Hather",
}

var surnameTails = []string{
	"by", "croft", "ley", "man", "more", "ston", "ton", "well", "wood", "ard", "ett", "ing", "ock", "er",
	"son", "hurst", "field", "worth", "bridge", "ham",
}

var townHeads = []string{
	"Ash", "Bram", "Cal", "Dun", "Elm", "Fair", "Glen", "Hal", "Ivy", "Kings", "Lang", "Mar", "Nor", "Oak",
	"Pen", "Queens", "Red", "Stan", "Thorn", "Up", "Wal", "West", "York", "Brook", "Chester", "Hart", "Brad",
	"Whit", "Gold", "Silver", "Alder", "Bright", "Castle", "Deep", "East", "Farn", "Great", "High", "Lower",
	"Mill", "New", "Old", "Rush", "Salt", "Stone", "Wick",
}

var townTails = []string{
	"ford", "bridge", "ton", "ham", "wick", "field", "borough", "by", "stead", "mouth", "well", "worth",
	"ley", "combe", "dale", "gate", "bury", "minster", "pool", "chester",
}

var compass = []string{"North", "South", "East", "West", "Central", "and Riverside"}

var wardNames = []string{
	"Abbey", "Bow", "Castle", "Canal", "Chapel", "Church", "Common", "Docks", "Fields", "Green", "Harbour",
	"Heath", "Hill", "Island", "Lea", "Market", "Meadow", "Mill", "Park", "Priory", "Riverside", "St Mary's",
	"St Peter's", "Station", "Town", "Vale", "Victoria", "Wharf", "Wood",
}

var partyWords = []string{
	"Progressive Alliance", "National Unity", "Civic Forward", "Green Future", "People's Democratic League",
	"Liberal Renewal", "Workers' Voice", "Commonwealth Party", "Heritage Movement", "Independent Reform",
	"Social Justice Party", "Citizens' Coalition", "Free Enterprise Party", "Community First",
	"Radical Democrats", "Unity and Hope", "New Direction", "Regional Alliance", "Centre Ground",
	"Popular Front for Change", "Tenants' Party", "Rural Voice",
}

var outletNames = []string{
	"The Daily Ledger", "Evening Courier", "Borough Gazette", "The Northern Post", "Metro Chronicle",
	"The Civic Observer", "Weekly Herald", "Channel Nine News", "The Standard-Tribune", "Riverside Echo",
	"Bangla Times", "The Correspondent", "Westminster Review", "Local Democracy Wire", "The Inquirer",
	"Sunday Sentinel", "Community Radio", "Policy Monitor",
}

var orgKinds = []string{
	"Tenants' Association", "Trade Union Branch", "Chamber of Commerce", "Mosque Trust", "Residents' Forum",
	"Youth Campaign", "Housing Cooperative", "Parents' Network", "Business Improvement District",
	"Community Trust", "Civic Society", "Arts Collective",
}

var wrongs = []string{
	"electoral fraud", "misusing council funds", "bullying staff", "intimidating voters",
	"breaching the code of conduct", "misleading the council", "antisemitism", "racism", "cronyism",
	"postal vote fraud", "failing to declare an interest", "defamation",
}

var headlines = []string{
	"row deepens over council budget", "candidates clash at hustings", "selection battle turns bitter",
	"councillors trade accusations", "party splits over leadership", "mayor under pressure",
	"campaign launches in marketplace", "tribunal hears complaint", "election result challenged",
	"investigation into postal votes", "new group formed on council", "housing vote divides chamber",
}

var familyRoles = []string{"spouse", "brother", "sister", "cousin", "son", "daughter", "ex-husband", "ex-wife", "brother-in-law", "uncle"}
